#pragma once coding
int z = ${n};

a<%text></%text>b

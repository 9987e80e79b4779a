${"tab\there"} ${'quote\'s'} ${"nl\\n"} ${len("\n")}

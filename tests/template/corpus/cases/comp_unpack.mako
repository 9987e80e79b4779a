${[a + str(b) for a, b in pairs]}

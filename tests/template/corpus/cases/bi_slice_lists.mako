${names[1:]} ${names[:-1]} ${names[::-1]} ${list(range(10))[2:8:3]}

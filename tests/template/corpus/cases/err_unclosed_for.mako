% for i in range(2):
x

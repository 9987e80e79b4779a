${sorted({i % 3 for i in range(10)})}

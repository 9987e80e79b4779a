${format(float('inf'), 'd')}

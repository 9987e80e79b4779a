${format('x', ',')}

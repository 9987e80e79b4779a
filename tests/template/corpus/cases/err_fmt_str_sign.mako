${format('x', '-5')}

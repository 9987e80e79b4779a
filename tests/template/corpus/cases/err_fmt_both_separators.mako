${format(5, ',_')}

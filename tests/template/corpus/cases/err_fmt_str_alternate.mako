${'{:#}'.format('x')}

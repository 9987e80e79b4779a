${format(65, '+c')}

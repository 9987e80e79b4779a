${'hello' % 5}

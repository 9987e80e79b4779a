const float c = ${"%.17g" % (1.0 / 3)};

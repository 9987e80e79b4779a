## Complex powers near the ends of the floats, as Python's complex_pow computes them.
${(1e200+1j) ** 0.5} ${(1e-200+0j) ** 3} ${complex(float("inf"), 0) ** 2} ${(1e308+1e308j) ** 1} ${(-8.0) ** (1/3)}

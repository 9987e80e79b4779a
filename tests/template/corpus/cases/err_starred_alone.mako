${(*names)}

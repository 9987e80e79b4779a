## str(1, 2): str's second argument is an encoding.
${1, 2}

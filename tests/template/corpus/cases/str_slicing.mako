${ctype[1:3]} ${ctype[-2:]} ${ctype[::2]} ${ctype[:-1]}

<%def name="fname(op)">${op}_${ctype}</%def>
${ctype} ${fname("add")}(${ctype} a, ${ctype} b) { return a + b; }
r = ${fname("add")}(x, y);

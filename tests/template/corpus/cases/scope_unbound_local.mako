## A name the top level assigns anywhere is its local everywhere (Python scoping of Mako's render
## function): read before the assignment it is no global.
${n}<% n = 5 %>${n}

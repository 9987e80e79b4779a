<%!
    WIDTH = 16
    def square(v):
        return v * v
%>
${WIDTH} ${square(WIDTH)}

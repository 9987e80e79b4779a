<%
    def mk(nm):
        return "GLOBAL_MEM " + ctype + " *" + nm
%>
KERNEL void k(${", ".join(mk(nm) for nm in names)})

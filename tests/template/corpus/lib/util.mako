<%def name="decl(t, nm)">${t} ${nm};</%def>
<%def name="twice_str(s)">${s}${s}</%def>

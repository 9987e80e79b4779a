## <%text filter="...">: the text is literal (nothing in it is read) and then filtered, the
## filters in order; `n` is skipped; a filter may be a callable of the globals or a local.
<%text filter="h"><b>${not_read}</b> % not a control line</%text>
<%text filter="trim, h">   <i>${x | h}</i>   </%text>|
<%text filter="twice">ab</%text>
<%text filter="n, u">a b&c</%text>
<% shout = str.upper %>\
<%text filter="shout, x">it's "quoted" <%text></%text>
% for i in range(2):
<%text filter="trim">  each time  </%text>
% endfor
<%def name="f()"><%text filter="h"><${'in a def'}></%text></%def>${f()}

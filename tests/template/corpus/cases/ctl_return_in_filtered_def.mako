## A <% return %> leaves the code that writes a filtered def's text unrun: the text is lost.
<%def name="d()" filter="trim">  x  <% return 5 %>after</%def>\
<%def name="e()" filter="trim">  x  <% return %></%def>\
[${d()}] [${e()}]

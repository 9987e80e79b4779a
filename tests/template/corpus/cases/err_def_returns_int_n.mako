<%def name="f()">a<% return 5 %></%def>${f() | n}

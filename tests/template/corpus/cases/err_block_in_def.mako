## Mako refuses a named block inside a def (its CompileException).
<%def name="f()"><%block name="b">x</%block></%def>${f()}

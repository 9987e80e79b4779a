<%inherit file="base.mako"/>
<%def name="body_text()">child body</%def>
child top

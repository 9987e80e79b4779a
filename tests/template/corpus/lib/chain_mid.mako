<%inherit file="chain_base.mako"/>
mid [
${next.body()}
] mid ${parent.greet()}
<%def name="who()">mid</%def>
<%def name="greet()">hello from mid, ${parent.greet()}</%def>

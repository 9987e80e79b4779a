<%inherit file="chain_mid.mako"/>
child: ${self.who()} / ${parent.greet()} / ${local.who()}
<%def name="who()">child</%def>

base(${self.who()}) {
${next.body()}
} base
<%def name="who()">base</%def>
<%def name="greet()">hello from base</%def>

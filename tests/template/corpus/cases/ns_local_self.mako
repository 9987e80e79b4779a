<%def name="a()">A</%def>
${self.a()} ${local.a()}

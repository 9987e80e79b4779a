<%inherit file="chain.mako"/>
<%namespace name="l" file="lib.mako" import="*"/>
<%page args="n, k=3"/>
${l.g(n)} ${g(k)} ${self.who()} ${local.body() if False else ''}
<%include file="sub/rel.mako"/>
<%include file="page.mako" args="n=n * 2"/>
<%def name="who()">loader</%def>
${complex(1, 2) ** 2} ${format(1.5 - 2j, '^12.2f')} ${abs(3j)}

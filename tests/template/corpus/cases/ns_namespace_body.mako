<%namespace name="c" file="common.mako"/>
<%namespace name="p" file="page_defaults.mako"/>
[${c.body()}]
[${p.body(7, label='b')}]

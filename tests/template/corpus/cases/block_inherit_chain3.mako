## Three levels: the leaf overrides the base's footer and the mid's aside; the mid's content
## (overriding the base's) stays.
<%inherit file="block_mid.mako"/>\
leaf body
<%block name="footer">leaf footer</%block>
<%block name="aside">leaf aside</%block>

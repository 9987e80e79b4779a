<%inherit file="block_base.mako"/>\
mid body
<%block name="content">mid content [${parent.content()}]</%block>
<%block name="aside">mid aside</%block>
${next.body()}\

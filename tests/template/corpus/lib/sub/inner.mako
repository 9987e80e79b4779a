inner {
<%include file="leaf.mako"/>\
<%include file="/common.mako"/>\
} inner

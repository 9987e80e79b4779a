## A child's named block overrides its parent's (rendered where the parent's stands, through
## self); one the parent lacks renders where it is written; parent.name() renders the parent's.
<%inherit file="block_base.mako"/>\
child body
<%block name="title">child title (was ${parent.title()})</%block>
<%block name="extra" filter="h"><extra></%block>

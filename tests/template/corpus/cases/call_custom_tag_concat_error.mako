<%def name="show(v)">${v}</%def>\
<%self:show v="n=${n}"></%self:show>

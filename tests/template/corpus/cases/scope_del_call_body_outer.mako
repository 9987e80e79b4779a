<%def name="c()">[${caller.body()}]</%def><% w = 2 %><%call expr="c()"><% del w %>z</%call>

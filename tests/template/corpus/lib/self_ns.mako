<%def name="outer(x)">(${self.inner(x * 2)})</%def>
<%def name="inner(y)">${y}</%def>

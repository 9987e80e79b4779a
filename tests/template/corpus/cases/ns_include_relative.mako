<%include file="sub/inner.mako"/>
done

<%page args="v"/>
v is ${v}

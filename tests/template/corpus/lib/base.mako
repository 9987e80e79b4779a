base start
${self.body_text()}
${next.body()}
base end

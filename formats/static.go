package formats

import "github.com/hpcfs/hpcfs/render"

func renderStatic(s string) render.View { return render.Static([]byte(s)) }

package interchange

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// Flame graph geometry, as flamegraph.pl draws it.
const (
	svgWidth    = 1200
	frameHeight = 16
	padTop      = 40
	padBottom   = 10
	padSide     = 10
	minWidthPx  = 0.1 // narrower frames are left out, as in flamegraph.pl
	charWidthPx = 7   // of the 12 px font, for the labels written in the file
)

// svgBytes draws metric m of t as a self-contained flame graph (root at the
// bottom) with click-to-zoom and a search box in an inline script; it
// fetches nothing.
func svgBytes(t *Tree, m int, title string) []byte {
	return svgDraw(t, m, title, func(x int32) string { return color(t.label(x), x == Root) })
}

// svgDraw is svgBytes with each frame's colour given by fill.
func svgDraw(t *Tree, m int, title string, fill func(x int32) string) []byte {
	total := t.Total(m)
	inner := float64(svgWidth - 2*padSide)
	n := t.Len()
	incl := t.inclusive(m)
	defer incl.reset(nil)
	// walk calls fn with each node drawn, in preorder, its left edge and
	// width in px. What a node's children need of their parent (its
	// next child's left edge, whether it is drawn) is kept on the path
	// from the root, not per node.
	type onPath struct {
		next float64
		draw bool
	}
	var path []onPath
	walk := func(fn func(x int32, left, w float64)) {
		if total <= 0 {
			return
		}
		path = append(path[:0], onPath{padSide, true})
		fn(Root, padSide, float64(incl.get(int(Root)))*inner/float64(total))
		for x := int32(1); x < int32(n); x++ {
			d := t.depthOf(x)
			path = path[:d]
			p := &path[d-1]
			inc := incl.get(int(x))
			if !p.draw || inc <= 0 {
				path = append(path, onPath{})
				continue
			}
			w := float64(inc) * inner / float64(total)
			left := p.next
			p.next += w
			path = append(path, onPath{left, w >= minWidthPx})
			if w >= minWidthPx {
				fn(x, left, w)
			}
		}
	}
	maxDepth := int32(0)
	walk(func(x int32, _, _ float64) { maxDepth = max(maxDepth, t.depthOf(x)) })
	height := padTop + int(maxDepth+1)*frameHeight + padBottom
	unit := t.Metrics[m].Unit
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" standalone="no"?>` + "\n")
	b.WriteString(`<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="` + strconv.Itoa(svgWidth) +
		`" height="` + strconv.Itoa(height) + `" viewBox="0 0 ` + strconv.Itoa(svgWidth) + " " + strconv.Itoa(height) +
		`" data-total="` + strconv.FormatInt(total, 10) + `" data-unit="` + xmlEscape(unit) + `">` + "\n")
	b.WriteString("<style>text{font-family:Verdana,\"DejaVu Sans\",sans-serif;font-size:12px;fill:#000}" +
		"g.f:hover rect{stroke:#000;stroke-width:0.5}g.f{cursor:pointer}#search,#reset{cursor:pointer}</style>\n")
	b.WriteString(`<rect x="0" y="0" width="100%" height="100%" fill="#f8f8f0"/>` + "\n")
	b.WriteString(`<text x="` + strconv.Itoa(svgWidth/2) + `" y="20" text-anchor="middle" style="font-size:16px">` + xmlEscape(title) + "</text>\n")
	b.WriteString(`<text id="reset" x="` + strconv.Itoa(padSide) + `" y="20" style="opacity:0">Reset Zoom</text>` + "\n")
	b.WriteString(`<text id="search" x="` + strconv.Itoa(svgWidth-padSide) + `" y="20" text-anchor="end">Search</text>` + "\n")
	b.WriteString(`<text id="matched" x="` + strconv.Itoa(svgWidth-padSide) + `" y="` + strconv.Itoa(height-2) + `" text-anchor="end"></text>` + "\n")
	b.WriteString(`<g id="frames">` + "\n")
	var scratch []int32
	walk(func(x int32, left, w float64) {
		inc := incl.get(int(x))
		y := height - padBottom - int(t.depthOf(x)+1)*frameHeight
		label := "all"
		if x != Root {
			label = t.label(x)
		}
		stack := "all"
		if x != Root {
			stack = string(t.appendStack(nil, x, ';', &scratch))
		}
		b.WriteString(`<g class="f" data-x="` + ftoa(left) + `" data-w="` + ftoa(w) + `" data-d="` +
			strconv.Itoa(int(t.depthOf(x))) + `"><title>` + xmlEscape(label) + " (" + strconv.FormatInt(inc, 10) + " " +
			xmlEscape(unit) + ", " + percent(inc, total) + ")\n" + xmlEscape(stack) + "</title>")
		b.WriteString(`<rect x="` + ftoa(left) + `" y="` + strconv.Itoa(y) + `" width="` + ftoa(w) + `" height="` +
			strconv.Itoa(frameHeight-1) + `" rx="2" fill="` + fill(x) + `"/>`)
		b.WriteString(`<text x="` + ftoa(left+3) + `" y="` + strconv.Itoa(y+frameHeight-4) + `">` +
			xmlEscape(fit(label, w)) + "</text></g>\n")
	})
	b.WriteString("</g>\n<script><![CDATA[\n" + svgScript + "]]></script>\n</svg>\n")
	return []byte(b.String())
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func percent(v, total int64) string {
	if total == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*float64(v)/float64(total), 'f', 2, 64) + "%"
}

// fit cuts a label to what a frame w px wide shows.
func fit(s string, w float64) string {
	n := int((w - 6) / charWidthPx)
	if n < 3 {
		return ""
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-2]) + ".."
	}
	return s
}

// color is a warm colour derived from the label, so the same function has
// the same colour in every graph.
func color(label string, root bool) string {
	if root {
		return "rgb(220,220,220)"
	}
	h := fnv.New32a()
	h.Write([]byte(label))
	v := h.Sum32()
	r := 205 + v%50
	g := (v >> 8) % 230
	bl := (v >> 16) % 55
	return "rgb(" + strconv.Itoa(int(r)) + "," + strconv.Itoa(int(g)) + "," + strconv.Itoa(int(bl)) + ")"
}

var xmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func xmlEscape(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' {
			return '?'
		}
		return r
	}, s)
	return xmlReplacer.Replace(s)
}

// svgScript zooms on click (a frame fills the width, its ancestors stay)
// and searches by regular expression; labels are cut to fit again.
const svgScript = `(function(){
var W=1200,P=10,CW=7,frames=[].slice.call(document.querySelectorAll("g.f"));
function label(g){return g.querySelector("title").textContent.replace(/ \(.*[\s\S]*$/,"");}
function place(g,x,w){var r=g.querySelector("rect"),t=g.querySelector("text");
 if(w<=0){g.style.display="none";return;}g.style.display="";
 r.setAttribute("x",x.toFixed(2));r.setAttribute("width",w.toFixed(2));t.setAttribute("x",(x+3).toFixed(2));
 var s=label(g),n=Math.floor((w-6)/CW);t.textContent=n<3?"":(s.length>n?s.slice(0,n-2)+"..":s);}
function zoom(z){var zx=+z.dataset.x,zw=+z.dataset.w,zd=+z.dataset.d,k=(W-2*P)/zw;
 frames.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d;
  if(d<zd){ if(x<=zx+1e-6&&x+w>=zx+zw-1e-6){place(g,P,W-2*P);}else{place(g,0,0);} }
  else if(x>=zx-1e-6&&x+w<=zx+zw+1e-6){place(g,P+(x-zx)*k,w*k);} else {place(g,0,0);} });
 document.getElementById("reset").style.opacity=1;}
function reset(){frames.forEach(function(g){place(g,+g.dataset.x,+g.dataset.w);});
 document.getElementById("reset").style.opacity=0;}
frames.forEach(function(g){g.addEventListener("click",function(){zoom(g);});});
document.getElementById("reset").addEventListener("click",reset);
document.getElementById("search").addEventListener("click",function(){
 var q=prompt("Search (regular expression)","");var m=document.getElementById("matched");
 if(q===null)return;var re;try{re=new RegExp(q);}catch(e){m.textContent="bad expression";return;}
 var tot=+document.documentElement.dataset.total,sum=0,spans=[];
 frames.forEach(function(g){var hit=q!==""&&re.test(label(g)),r=g.querySelector("rect");
  if(!r.dataset.fill)r.dataset.fill=r.getAttribute("fill");r.setAttribute("fill",hit?"rgb(230,0,230)":r.dataset.fill);
  if(hit){var x=+g.dataset.x,w=+g.dataset.w;if(!spans.some(function(s){return x>=s[0]-1e-6&&x+w<=s[1]+1e-6;})){spans.push([x,x+w]);sum+=w;}}});
 m.textContent=q===""?"":"Matched: "+(100*sum/(W-2*P)).toFixed(2)+"%";});
})();
`

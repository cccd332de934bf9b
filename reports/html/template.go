package html

import "html/template"

// pageTemplate lays the page out: verdict, comparison, further sections,
// plots, configuration, warnings and glossary. The "table" template
// draws a Table that the page's script can sort; without the script
// it is a plain table.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"sortKey": sortKey}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<nav><a href="#verdict">Verdict</a> · <a href="#comparison">Comparison</a>{{range .R.Sections}} · <a href="#{{.ID}}">{{.Title}}</a>{{end}}{{if .Plots}} · <a href="#plots">Plots</a>{{end}} · <a href="#config">Configuration</a> · <a href="#warnings">Warnings</a> · <a href="#glossary">Glossary</a></nav>
</header>
<main>
<section id="verdict" class="verdict">
<h2>Verdict</h2>
{{- if .R.Verdict}}
<p class="headline">{{.Headline}}.</p>
<p>SLO: {{.R.Verdict.SLO}}. Each policy ran the workload and arrivals of {{.R.Verdict.Seeds}} seed(s); the margin is the mean of the per-seed differences with its 95 % Student-t confidence interval, and a difference whose interval holds 0 is called a tie.{{with .ProfileNote}} {{.}}.{{end}}</p>
{{template "table" .VerdictTable}}
{{- else}}
<p class="headline">{{.R.VerdictNote}}</p>
{{- end}}
{{with .R.Warnings}}<p class="caution">Read this verdict with the <a href="#warnings">{{len .}} warning(s)</a> below: they say where the measurement itself is doubtful.</p>
{{end -}}
{{range .R.Lead}}<p>{{.}}</p>
{{end -}}
</section>
<section id="comparison">
<h2>Comparison</h2>
<p class="hint">Click a column header to sort by it; click again to reverse. Bold marks the best value of a column.</p>
{{template "table" .R.Table}}
</section>
{{- range .R.Sections}}
<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{with .Text}}<p>{{.}}</p>{{end}}
{{template "table" .Table}}
</section>
{{- end}}
{{- if .Plots}}
<section id="plots">
<h2>Plots</h2>
{{- range .Plots}}
<figure id="plot-{{.ID}}">
<h3>{{.Title}}</h3>
<div class="plot">{{.SVG}}</div>
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
</section>
{{- end}}
<section id="config">
<h2>Run configuration</h2>
<dl class="config">
{{- range .R.Config}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
</dl>
{{template "table" .R.ConfigTable}}
</section>
<section id="warnings">
<h2>Warnings</h2>
{{- if .R.Warnings}}
<p>These say where the measurement itself is doubtful; read the figures with them in mind.</p>
<ul class="warnings">
{{- range .R.Warnings}}
<li><b>{{.Title}}</b>: {{.Why}}.<ul>{{range .Lines}}<li>{{.}}</li>{{end}}</ul></li>
{{- end}}
</ul>
{{- else}}
<p>None: no check found the measurement doubtful.</p>
{{- end}}
</section>
<section id="glossary">
<h2>Glossary</h2>
<dl class="glossary">
{{- range .R.Glossary}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
</dl>
</section>
</main>
<script>{{.JS}}</script>
</body>
</html>
{{define "table"}}{{if .}}{{if .Rows}}<div class="scroll"><table class="sortable">
<thead><tr>{{range .Head}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td{{if .Num}} class="num" data-v="{{sortKey .}}"{{end}}>{{if .Best}}<b>{{.Text}}</b>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{with .Note}}<p class="note">{{.}}</p>{{end}}{{end}}{{end}}{{end}}`))

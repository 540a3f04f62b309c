{{- define "gvDetails" -}}
{{- $gv := . -}}

## {{ $gv.GroupVersionString }}

{{ $gv.Doc }}

{{- if $gv.Kinds  }}

### Kinds
{{- range $gv.SortedKinds }}
{{- if not (hasSuffix "List" .) }}
- {{ $gv.TypeForKind . | markdownRenderTypeLink }}
{{- end }}
{{- end }}
{{ end }}

### Types

{{ range $gv.SortedTypes }}
{{ template "type" . }}
{{ end }}

{{- end -}}

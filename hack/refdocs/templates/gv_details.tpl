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


{{- /* A version with no types of its own: api/v1alpha1, served with the
       schema of the stored version (docs/api.md). */ -}}
{{- define "gvDeprecated" -}}
{{- $gv := .gv -}}

## {{ $gv.GroupVersionString }} (deprecated)

Served, not stored, and deprecated: the API server warns on every request
at it. Every kind has the schema of its stored version, field for field,
so each kind's fields are those of its stored version above (see [API versions](api.md)):
{{ range .all }}
{{- if .Kinds }}
{{- $stored := . }}
{{- range .SortedKinds }}
{{- if not (hasSuffix "List" .) }}
- {{ . }}: as {{ $stored.TypeForKind . | markdownRenderTypeLink }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{ $gv.Doc }}

{{- end -}}

{{- define "type_members" -}}
{{- $field := . -}}
{{- if eq $field.Name "metadata" -}}
Refer to Kubernetes API documentation for fields of `metadata`.
{{- else -}}
{{ markdownRenderFieldDoc $field.Doc }}
{{- end -}}
{{- end -}}

{{- define "field_default" -}}
{{ markdownRenderDefault .Default }}
{{- end -}}

{{- define "field_validation" -}}
{{- range .Validation -}} {{ markdownRenderFieldDoc . }} <br />{{ end -}}
{{- range (index .Markers "kubebuilder:validation:XValidation") -}} Rule: `{{ replace "|" "\\|" .Rule }}`{{ if .Message }}: {{ markdownRenderFieldDoc .Message }}{{ end }} <br />{{ end -}}
{{- end -}}

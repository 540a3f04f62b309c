{{/* The prefix of every name: config/default's namePrefix without its dash. */}}
{{- define "forge-operator.fullname" -}}
{{- .Values.fullnameOverride | default "forge-operator" | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "forge-operator.serviceAccountName" -}}
{{- include "forge-operator.fullname" . }}-controller-manager
{{- end -}}

{{/* The labels config/default's selectors use: they must not change on upgrade. */}}
{{- define "forge-operator.selectorLabels" -}}
control-plane: controller-manager
app.kubernetes.io/name: forge-operator
{{- end -}}

{{/* Labels of every object. */}}
{{- define "forge-operator.labels" -}}
app.kubernetes.io/name: forge-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Annotations of every object, as a block (empty when none). */}}
{{- define "forge-operator.annotations" -}}
{{- with .Values.commonAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The manager image: repository, then @digest or :tag (appVersion by default). */}}
{{- define "forge-operator.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{/* "true" when the manager watches a list of namespaces (the namespaced install). */}}
{{- define "forge-operator.namespaced" -}}
{{- if .Values.manager.watchNamespaces }}true{{ end -}}
{{- end -}}

{{/* Whether the manager serves ClusterForges: the value, else true only cluster-wide. */}}
{{- define "forge-operator.clusterForges" -}}
{{- $ns := include "forge-operator.namespaced" . -}}
{{- if kindIs "invalid" .Values.manager.clusterForges -}}
{{- if $ns }}false{{ else }}true{{ end -}}
{{- else if and $ns .Values.manager.clusterForges -}}
{{- fail "manager.clusterForges: true needs the cluster-wide install: a manager limited to manager.watchNamespaces cannot watch ClusterForges, which are cluster-scoped" -}}
{{- else -}}
{{- .Values.manager.clusterForges -}}
{{- end -}}
{{- end -}}

{{/*
The CRDs of config/crd/bases (copied into files/crds by `make manifests`),
each parsed: a list of dictionaries.
*/}}
{{- define "forge-operator.crds" -}}
{{- $crds := list -}}
{{- range $path, $_ := .Files.Glob "files/crds/*.yaml" -}}
{{- $crds = append $crds ($.Files.Get $path | fromYaml) -}}
{{- end -}}
{{- toYaml (dict "crds" $crds) -}}
{{- end -}}

{{/* The rules of the manager-role ClusterRole of config/rbac/role.yaml (copied by `make manifests`). */}}
{{- define "forge-operator.managerRules" -}}
{{- $role := .Files.Get "files/rbac/manager-role.yaml" | fromYaml -}}
{{- toYaml $role.rules -}}
{{- end -}}

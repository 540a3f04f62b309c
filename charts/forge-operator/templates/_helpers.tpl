{{/* The prefix of every name: config/default's namePrefix without its dash. */}}
{{- define "forge-operator.fullname" -}}
{{- .Values.fullnameOverride | default "forge-operator" | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "forge-operator.serviceAccountName" -}}
{{- include "forge-operator.fullname" . }}-controller-manager
{{- end -}}

{{/*
The default manager Deployment's selector, config/default's: a Deployment's
selector cannot change on upgrade, so it stays what the first release had.
*/}}
{{- define "forge-operator.selectorLabels" -}}
control-plane: controller-manager
app.kubernetes.io/name: forge-operator
{{- end -}}

{{/*
The selector of the Deployment of one manager: the default one's (shard "")
or a shard's. Selectors must not overlap (a Deployment's selector must not
match another Deployment's Pods: kubectl logs deploy/..., rollout status,
scale and the HPA would count them), and the default one's cannot change.
So a shard's Pods do not carry control-plane: controller-manager (the
default selector would match them), and carry
forge.forgeops.dev/shard-manager: <shard>, which its selector requires (the
default manager's Pods have no such label, and two shards differ in its
value). Every manager's Pods carry app.kubernetes.io/component: manager, the
metrics Service's selector ("forge-operator.metricsSelectorLabels").
*/}}
{{- define "forge-operator.managerSelectorLabels" -}}
{{- if .shard -}}
app.kubernetes.io/name: forge-operator
forge.forgeops.dev/shard-manager: {{ .shard }}
{{- else -}}
{{ include "forge-operator.selectorLabels" . }}
{{- end -}}
{{- end -}}

{{/* The metrics Service's selector: the Pods of every manager, the default one and the shards'. */}}
{{- define "forge-operator.metricsSelectorLabels" -}}
app.kubernetes.io/name: forge-operator
app.kubernetes.io/component: manager
{{- end -}}

{{/*
Checks the shards value: a list of shard names, or of {name, overrides}; each
name a label value the manager accepts (--shard) that can also end a
Deployment's name (lowercase), not "" (the default manager, always deployed),
listed once; overrides only of the keys a shard may set apart. Renders
nothing; fails with a message naming the entry.
*/}}
{{- define "forge-operator.validateShards" -}}
{{- if and (hasKey .Values.manager "shard") .Values.manager.shard -}}
{{- fail "manager.shard is replaced by shards: the chart always runs the default manager (no --shard) and one more per entry of shards, e.g. --set 'shards={eu-1}'" -}}
{{- end -}}
{{- if and .Values.shards (not .Values.manager.leaderElect) -}}
{{- fail "shards need manager.leaderElect: true: the handover of a forge server between shards reads each shard's leader-election Lease (docs/shards.md)" -}}
{{- end -}}
{{- if and .Values.shards (not (kindIs "slice" .Values.shards)) -}}
{{- fail (printf "shards: a list of shard names (or of {name: ..., replicaCount: ...}), not %s" (kindOf .Values.shards)) -}}
{{- end -}}
{{- $keys := list "name" "replicaCount" "resources" "nodeSelector" "tolerations" "affinity" "priorityClassName" "podLabels" "podAnnotations" "manager" -}}
{{- $seen := dict -}}
{{- range $i, $s := .Values.shards | default list -}}
{{- $name := $s -}}
{{- if kindIs "map" $s -}}
{{- $name = $s.name | default "" -}}
{{- range $k := keys $s | sortAlpha -}}
{{- if not (has $k $keys) -}}
{{- fail (printf "shards[%d]: %q is not a key a shard may set: %s" $i $k (join ", " $keys)) -}}
{{- end -}}
{{- end -}}
{{- range $k := list "watchNamespaces" "clusterForges" "shard" "leaderElect" -}}
{{- if and (kindIs "map" $s.manager) (hasKey $s.manager $k) -}}
{{- fail (printf "shards[%d]: manager.%s cannot be set per shard: every manager of the release shares its RBAC and serves the shard it is listed as" $i $k) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not (kindIs "string" $name) -}}
{{- fail (printf "shards[%d]: the shard name %v is not a string (quote it, or use --set-string)" $i $name) -}}
{{- end -}}
{{- if eq $name "" -}}
{{- fail (printf "shards[%d]: a shard needs a name (the default manager, without one, always runs)" $i) -}}
{{- end -}}
{{- if or (gt (len $name) 63) (not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $name)) -}}
{{- fail (printf "shards[%d]: %q cannot be a shard of the chart: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (a label value that also names the Deployment)" $i $name) -}}
{{- end -}}
{{- if hasKey $seen $name -}}
{{- fail (printf "shards[%d]: %q is listed twice" $i $name) -}}
{{- end -}}
{{- $_ := set $seen $name true -}}
{{- end -}}
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

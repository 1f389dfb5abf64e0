{{/* Names and labels shared by every template. */}}

{{- define "stratus.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The name of one component's objects, e.g. "stratus-operator". */}}
{{- define "stratus.componentName" -}}
{{- printf "%s-%s" (include "stratus.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "stratus.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: stratus
{{- end -}}

{{/* Selector labels of one component; they never change after install. */}}
{{- define "stratus.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "stratus.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The worker Jobs' image: the operator's unless `worker.image` names another. */}}
{{- define "stratus.workerImage" -}}
{{ .Values.worker.image.repository | default .Values.image.repository }}:{{ .Values.worker.image.tag | default .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "stratus.storeClaim" -}}
{{- .Values.store.existingClaim | default (printf "%s-store" (include "stratus.fullname" .)) -}}
{{- end -}}

{{/* The restricted Pod Security Standard: non-root, no privilege escalation, no capabilities. */}}
{{- define "stratus.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "stratus.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* Every kind of climate.stratus.dev, by plural; a chart test checks it against crds/. */}}
{{- define "stratus.resources" -}}
- analyticstables
- datasets
- datasources
- deliveries
- exports
- featurecollections
- ingestions
- initialaccesstokens
- oauth2authorizationconsents
- oauth2authorizations
- oauth2clientassertions
- oauth2clients
- processingjobs
- programs
- schedules
- sessions
- trackedentitytypes
- users
- workflows
- writerclaims
{{- end -}}

{{/* Kinds people work with; the authorization server's records stay out of the aggregated user roles. */}}
{{- define "stratus.userResources" -}}
- analyticstables
- datasets
- datasources
- deliveries
- exports
- featurecollections
- ingestions
- oauth2clients
- processingjobs
- programs
- schedules
- trackedentitytypes
- workflows
{{- end -}}

{{/* What the operator may do where it watches: reconcile the kinds, record Events. Its Jobs are in the release namespace. */}}
{{- define "stratus.operatorRules" -}}
- apiGroups: ["climate.stratus.dev"]
  resources:
    {{- include "stratus.resources" . | nindent 4 }}
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["climate.stratus.dev"]
  resources: ["*/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["climate.stratus.dev"]
  resources: ["*/finalizers"]
  verbs: ["update"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  # get: a repeated Event is counted in the existing one's series (operator/runtime/events.ts).
  verbs: ["get", "create", "patch"]
- apiGroups: [""]
  resources: ["configmaps"]
  # The system settings, by which the OAuth2Client controller judges custom-scheme redirect URIs.
  resourceNames: ["stratus-system-settings"]
  verbs: ["get"]
{{- end -}}

{{/* What a worker may do where the operator watches: report into its run's status (operator/worker/status-report.ts). */}}
{{- define "stratus.workerRules" -}}
- apiGroups: ["climate.stratus.dev"]
  resources: ["ingestions/status", "processingjobs/status", "deliveries/status", "analyticstables/status"]
  verbs: ["patch"]
{{- end -}}

{{/* What the API server may do where the operator watches: read and write resources; of statuses only a user's. */}}
{{- define "stratus.apiServerRules" -}}
- apiGroups: ["climate.stratus.dev"]
  resources:
    {{- include "stratus.resources" . | nindent 4 }}
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["climate.stratus.dev"]
  # A sign-in through an external provider records its time (status.lastLogin), which picks between linked accounts.
  resources: ["users/status"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["secrets"]
  # The authorization server: users' password hashes, clients' secrets (deleted with their client through
  # /api/oAuth2Clients), the ephemeral signing key (created once).
  verbs: ["get", "create", "update", "delete"]
- apiGroups: [""]
  resources: ["configmaps"]
  # The system settings of the authorization server (core/auth/system-settings.ts), created on the first write
  # through /api/systemSettings and then changed by compare-and-swap.
  verbs: ["get", "create", "update"]
{{- end -}}

{{/* The probes of a Stratus container on its named port: /healthz for startup and liveness, /readyz for readiness. */}}
{{- define "stratus.probes" -}}
{{- $probes := .root.Values.probes -}}
startupProbe:
  httpGet: { path: /healthz, port: {{ .port }} }
  {{- toYaml $probes.startup | nindent 2 }}
livenessProbe:
  httpGet: { path: /healthz, port: {{ .port }} }
  {{- toYaml $probes.liveness | nindent 2 }}
readinessProbe:
  httpGet: { path: /readyz, port: {{ .port }} }
  {{- toYaml $probes.readiness | nindent 2 }}
{{- end -}}

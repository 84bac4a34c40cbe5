{{/* Names: <release>-swflow unless the release name already says swflow. */}}
{{- define "swflow.fullname" -}}
{{- if contains "swflow" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-swflow" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "swflow.labels" -}}
app.kubernetes.io/name: swflow
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "swflow.tag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Selector labels of a component: dict root, component, track. */}}
{{- define "swflow.selectorLabels" -}}
app.kubernetes.io/name: swflow
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
swflow.io/track: {{ .track | default "current" }}
{{- end -}}

{{- define "swflow.tag" -}}
{{- .Values.image.tag | default .Chart.AppVersion -}}
{{- end -}}

{{- define "swflow.buildId" -}}
{{- .Values.versioning.buildId | default (include "swflow.tag" .) -}}
{{- end -}}

{{- define "swflow.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "swflow.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* A DNS-1123 form of a build id, for object names and label values. */}}
{{- define "swflow.buildSlug" -}}
{{- regexReplaceAll "[^a-z0-9-]+" (. | toString | lower) "-" | trunc 40 | trimAll "-" -}}
{{- end -}}

{{- define "swflow.definitionsDir" -}}
{{- if and (eq .Values.definitions.source "image") (not .Values.definitions.image.repository) -}}
{{- .Values.definitions.image.path -}}
{{- else -}}
/etc/swflow/definitions
{{- end -}}
{{- end -}}

{{/* The environment every process shares: the Temporal connection, codec keys, metrics, health. */}}
{{- define "swflow.env" -}}
- name: TEMPORAL_ADDRESS
  value: {{ required "temporal.address is required" .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
{{- if .Values.temporal.tls }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- with .Values.temporal.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- with .Values.temporal.apiKey.existingSecret }}
- name: TEMPORAL_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.temporal.apiKey.key }}
{{- end }}
{{- if .Values.temporal.mtls.existingSecret }}
- name: TEMPORAL_TLS_CERT
  value: /etc/swflow/tls/{{ .Values.temporal.mtls.certKey }}
- name: TEMPORAL_TLS_KEY
  value: /etc/swflow/tls/{{ .Values.temporal.mtls.keyKey }}
{{- with .Values.temporal.mtls.caKey }}
- name: TEMPORAL_TLS_CA
  value: /etc/swflow/tls/{{ . }}
{{- end }}
{{- end }}
{{- if .Values.codec.existingSecret }}
- name: SWFLOW_CODEC_KEY_FILE
  value: /etc/swflow/codec
{{- with .Values.codec.currentKey }}
- name: SWFLOW_CODEC_CURRENT_KEY
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- if .Values.metrics.enabled }}
- name: SWFLOW_METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
- name: SWFLOW_METRICS_HOST
  value: 0.0.0.0
{{- end }}
- name: SWFLOW_HEALTH_PORT
  value: {{ .Values.health.port | quote }}
- name: SWFLOW_HEALTH_HOST
  value: 0.0.0.0
- name: SWFLOW_CACHE
  value: /tmp/swflow-cache
{{- /* glibc's malloc held to 2 arenas: less resident memory per process (bench/README.md, "What a worker costs"); the image sets it too, this keeps it with an image of your own. */}}
- name: MALLOC_ARENA_MAX
  value: "2"
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "swflow.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if .Values.temporal.mtls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ .Values.temporal.mtls.existingSecret }}
{{- end }}
{{- if .Values.codec.existingSecret }}
- name: codec-keys
  secret:
    secretName: {{ .Values.codec.existingSecret }}
{{- end }}
{{- if eq .Values.definitions.source "configMap" }}
- name: definitions
  configMap:
    name: {{ include "swflow.fullname" . }}-definitions
{{- else if eq .Values.definitions.source "existingConfigMap" }}
- name: definitions
  configMap:
    name: {{ required "definitions.existingConfigMap is required with source existingConfigMap" .Values.definitions.existingConfigMap }}
{{- else if and (eq .Values.definitions.source "image") .Values.definitions.image.repository }}
- name: definitions
  emptyDir: {}
{{- else if ne .Values.definitions.source "image" }}
{{- fail (printf "definitions.source must be configMap, existingConfigMap or image, not %q" .Values.definitions.source) }}
{{- end }}
{{- end -}}

{{- define "swflow.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.mtls.existingSecret }}
- name: temporal-tls
  mountPath: /etc/swflow/tls
  readOnly: true
{{- end }}
{{- if .Values.codec.existingSecret }}
- name: codec-keys
  mountPath: /etc/swflow/codec
  readOnly: true
{{- end }}
{{- if or (ne .Values.definitions.source "image") .Values.definitions.image.repository }}
- name: definitions
  mountPath: /etc/swflow/definitions
  readOnly: true
{{- end }}
{{- end -}}

{{/*
One Deployment of swflow: dict
  root, component (interpreter|adapters|gateway), track (current|previous), name, values (the component's values),
  replicas, tag, args (list), env (list of extra env entries), ports (list), probes (bool), build (slug, optional)
*/}}
{{- define "swflow.deployment" -}}
{{- $root := .root -}}
{{- $v := .values -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
  labels:
    {{- include "swflow.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- if not (and $v.autoscaling $v.autoscaling.enabled (eq (.track | default "current") "current")) }}
  replicas: {{ .replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "swflow.selectorLabels" (dict "root" $root "component" .component "track" .track) | nindent 6 }}
      {{- with .build }}
      swflow.io/build: {{ . }}
      {{- end }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "swflow.selectorLabels" (dict "root" $root "component" .component "track" .track) | nindent 8 }}
        {{- with .build }}
        swflow.io/build: {{ . }}
        {{- end }}
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/definitions: {{ include (print $root.Template.BasePath "/definitions.yaml") $root | sha256sum }}
        {{- if $root.Values.metrics.enabled }}
        {{- if $root.Values.metrics.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $root.Values.metrics.port | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- end }}
        {{- with $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "swflow.serviceAccountName" $root }}
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- if and (eq $root.Values.definitions.source "image") $root.Values.definitions.image.repository }}
      initContainers:
        - name: definitions
          image: "{{ $root.Values.definitions.image.repository }}:{{ $root.Values.definitions.image.tag }}"
          imagePullPolicy: {{ $root.Values.definitions.image.pullPolicy }}
          command: ["sh", "-c", "cp -R {{ $root.Values.definitions.image.path }}/. /etc/swflow/definitions/"]
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: definitions
              mountPath: /etc/swflow/definitions
      {{- end }}
      containers:
        - name: {{ .component }}
          image: "{{ $root.Values.image.repository }}:{{ .tag }}"
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          {{- /* No command: the image's ENTRYPOINT is `node /app/bin/swflow.js`, the args its subcommand (as `docker run IMAGE worker ...`). */}}
          args:
            {{- toYaml .args | nindent 12 }}
          env:
            {{- include "swflow.env" $root | nindent 12 }}
            {{- with .env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- if and $root.Values.callSecrets.existingSecret (ne .component "gateway") }}
          envFrom:
            - secretRef:
                name: {{ $root.Values.callSecrets.existingSecret }}
          {{- end }}
          ports:
            {{- toYaml .ports | nindent 12 }}
            {{- if $root.Values.metrics.enabled }}
            - name: metrics
              containerPort: {{ $root.Values.metrics.port }}
              protocol: TCP
            {{- end }}
          startupProbe:
            httpGet:
              path: /healthz
              port: {{ .probePort }}
            periodSeconds: 5
            failureThreshold: 36
          livenessProbe:
            httpGet:
              path: /healthz
              port: {{ .probePort }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: {{ .probePort }}
            periodSeconds: 10
            timeoutSeconds: 5
            failureThreshold: 2
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "swflow.volumeMounts" $root | nindent 12 }}
      volumes:
        {{- include "swflow.volumes" $root | nindent 8 }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{/*
The labels every object of the chart carries, and the Pods' selector: the same as manifests/
(app.kubernetes.io/name), so that the chart and `kubectl apply -k manifests/` install the same
objects and one can replace the other.
*/}}
{{- define "kruise-webhook.labels" -}}
app.kubernetes.io/name: kruise-webhook-server
{{- end -}}

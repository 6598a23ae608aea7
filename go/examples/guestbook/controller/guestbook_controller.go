// Package controller is the guestbook operator's reconciler.
package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	webappv1 "fakekube/go/examples/guestbook/api/v1"
)

const (
	// Finalizer keeps a Guestbook until its entry is out of the directory ConfigMap.
	Finalizer = "webapp.example.com/directory"
	// DirectoryConfigMap lists every guestbook of a namespace with the address it is reached at: state
	// outside the guestbook's owned objects, which is why deletion needs a finalizer.
	DirectoryConfigMap = "guestbook-directory"
	// FieldManager names this controller's writes.
	FieldManager = "guestbook-controller"

	ConditionSynced    = "Synced"
	ConditionAvailable = "Available"
)

// GuestbookReconciler keeps a Deployment, a Service and a directory entry in line with each Guestbook.
type GuestbookReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=webapp.example.com,resources=guestbooks;guestbooks/status;guestbooks/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services;configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// SetupWithManager registers the reconciler: Guestbooks, and the Deployments and Services they own.
func (r *GuestbookReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.Guestbook{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Complete(r)
}

// Reconcile brings one Guestbook's children and status up to date. A write that lost a race with the
// cache (409: a stale resourceVersion, or AlreadyExists for an object the cache has not seen yet) is
// retried shortly without an error: it is expected, not a failure.
func (r *GuestbookReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	result, err := r.reconcile(ctx, req)
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return ctrl.Result{RequeueAfter: retryStale}, nil
	}
	return result, err
}

// retryStale is how soon a reconcile that lost a race runs again (the cache has caught up by then).
const retryStale = 50 * time.Millisecond

func (r *GuestbookReconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	guestbook := &webappv1.Guestbook{}
	if err := r.Get(ctx, req.NamespacedName, guestbook); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !guestbook.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, guestbook)
	}
	if !controllerutil.ContainsFinalizer(guestbook, Finalizer) {
		base := guestbook.DeepCopy()
		controllerutil.AddFinalizer(guestbook, Finalizer)
		// Optimistic lock: a finalizer list is replaced whole by a merge patch, so never write a stale one.
		if err := r.Patch(ctx, guestbook, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, err
		}
	}
	deployment, err := r.syncDeployment(ctx, guestbook)
	if err != nil {
		return ctrl.Result{}, r.failed(ctx, guestbook, "DeploymentFailed", err)
	}
	service, err := r.syncService(ctx, guestbook)
	if err != nil {
		return ctrl.Result{}, r.failed(ctx, guestbook, "ServiceFailed", err)
	}
	address := fmt.Sprintf("%s.%s.svc:%d", service.Name, service.Namespace, guestbook.Spec.Port)
	if err := r.setDirectoryEntry(ctx, guestbook.Namespace, guestbook.Name, address); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.updateStatus(ctx, guestbook, deployment, service)
}

func (r *GuestbookReconciler) syncDeployment(ctx context.Context, gb *webappv1.Guestbook) (*appsv1.Deployment, error) {
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: gb.Name, Namespace: gb.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, deployment, func() error {
		labels := podLabels(gb)
		deployment.Labels = labels
		deployment.Spec.Replicas = gb.Spec.Replicas
		deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		deployment.Spec.Template.Labels = labels
		containers := deployment.Spec.Template.Spec.Containers
		if len(containers) != 1 {
			containers = []corev1.Container{{Name: "frontend"}}
		}
		containers[0].Name = "frontend"
		containers[0].Image = gb.Spec.Image
		containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: gb.Spec.Port, Protocol: corev1.ProtocolTCP}}
		deployment.Spec.Template.Spec.Containers = containers
		return controllerutil.SetControllerReference(gb, deployment, r.Scheme())
	})
	if err != nil {
		return nil, err
	}
	r.recordChange(gb, deployment, "Deployment", op)
	return deployment, nil
}

func (r *GuestbookReconciler) syncService(ctx context.Context, gb *webappv1.Guestbook) (*corev1.Service, error) {
	service := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: gb.Name, Namespace: gb.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, service, func() error {
		service.Labels = podLabels(gb)
		service.Spec.Selector = podLabels(gb)
		service.Spec.Type = corev1.ServiceType(gb.Spec.ServiceType)
		port := corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromInt32(gb.Spec.Port), Protocol: corev1.ProtocolTCP}
		if len(service.Spec.Ports) == 1 {
			port.NodePort = service.Spec.Ports[0].NodePort // keep the allocated node port
		}
		if service.Spec.Type == corev1.ServiceTypeClusterIP {
			port.NodePort = 0
		}
		service.Spec.Ports = []corev1.ServicePort{port}
		return controllerutil.SetControllerReference(gb, service, r.Scheme())
	})
	if err != nil {
		return nil, err
	}
	r.recordChange(gb, service, "Service", op)
	return service, nil
}

func (r *GuestbookReconciler) recordChange(gb *webappv1.Guestbook, child client.Object, kind string, op controllerutil.OperationResult) {
	switch op {
	case controllerutil.OperationResultCreated:
		r.Recorder.Eventf(gb, child, corev1.EventTypeNormal, "Created", "Create", "Created %s %s", kind, child.GetName())
	case controllerutil.OperationResultUpdated:
		r.Recorder.Eventf(gb, child, corev1.EventTypeNormal, "Updated", "Update", "Updated %s %s", kind, child.GetName())
	}
}

// updateStatus writes the status with a merge patch of what changed: it cannot conflict, and it only
// carries this controller's fields (the lesson of agent-sandbox PR #508).
func (r *GuestbookReconciler) updateStatus(ctx context.Context, gb *webappv1.Guestbook, deployment *appsv1.Deployment, service *corev1.Service) error {
	base := gb.DeepCopy()
	gb.Status.ObservedGeneration = gb.Generation
	gb.Status.ReadyReplicas = deployment.Status.ReadyReplicas
	gb.Status.ServiceName = service.Name
	meta.SetStatusCondition(&gb.Status.Conditions, metav1.Condition{
		Type: ConditionSynced, Status: metav1.ConditionTrue, Reason: "Synced", ObservedGeneration: gb.Generation,
		Message: fmt.Sprintf("Deployment %s and Service %s match the spec", deployment.Name, service.Name),
	})
	want := int32(1)
	if gb.Spec.Replicas != nil {
		want = *gb.Spec.Replicas
	}
	available := metav1.Condition{Type: ConditionAvailable, ObservedGeneration: gb.Generation}
	if deployment.Status.ObservedGeneration >= deployment.Generation && deployment.Status.ReadyReplicas >= want &&
		deployment.Status.UpdatedReplicas >= want {
		available.Status, available.Reason = metav1.ConditionTrue, "ReplicasReady"
		available.Message = fmt.Sprintf("%d/%d replicas ready", deployment.Status.ReadyReplicas, want)
	} else {
		available.Status, available.Reason = metav1.ConditionFalse, "WaitingForReplicas"
		available.Message = fmt.Sprintf("%d/%d replicas ready", deployment.Status.ReadyReplicas, want)
	}
	meta.SetStatusCondition(&gb.Status.Conditions, available)
	return r.Status().Patch(ctx, gb, client.MergeFrom(base))
}

func (r *GuestbookReconciler) failed(ctx context.Context, gb *webappv1.Guestbook, reason string, cause error) error {
	if apierrors.IsConflict(cause) || apierrors.IsAlreadyExists(cause) {
		return cause // a lost race, retried: not worth a Warning
	}
	r.Recorder.Eventf(gb, nil, corev1.EventTypeWarning, reason, "Reconcile", "%v", cause)
	base := gb.DeepCopy()
	meta.SetStatusCondition(&gb.Status.Conditions, metav1.Condition{
		Type: ConditionSynced, Status: metav1.ConditionFalse, Reason: reason, Message: cause.Error(), ObservedGeneration: gb.Generation,
	})
	if err := r.Status().Patch(ctx, gb, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("%w (and the status: %v)", cause, err)
	}
	return cause
}

// finalize removes the guestbook's directory entry, then the finalizer; the garbage collector removes the
// Deployment and the Service (owner references).
func (r *GuestbookReconciler) finalize(ctx context.Context, gb *webappv1.Guestbook) error {
	if !controllerutil.ContainsFinalizer(gb, Finalizer) {
		return nil
	}
	if err := r.setDirectoryEntry(ctx, gb.Namespace, gb.Name, ""); err != nil {
		return err
	}
	r.Recorder.Eventf(gb, nil, corev1.EventTypeNormal, "Finalized", "Delete", "Removed %s from the %s ConfigMap", gb.Name, DirectoryConfigMap)
	base := gb.DeepCopy()
	controllerutil.RemoveFinalizer(gb, Finalizer)
	return client.IgnoreNotFound(r.Patch(ctx, gb, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})))
}

// setDirectoryEntry sets (or, with an empty address, removes) one guestbook's line in the directory.
func (r *GuestbookReconciler) setDirectoryEntry(ctx context.Context, namespace, name, address string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: DirectoryConfigMap, Namespace: namespace}}
	err := r.Get(ctx, client.ObjectKeyFromObject(cm), cm)
	if apierrors.IsNotFound(err) {
		if address == "" {
			return nil
		}
		cm.Data = map[string]string{name: address}
		return r.Create(ctx, cm)
	}
	if err != nil {
		return err
	}
	if cm.Data[name] == address || (address == "" && !hasKey(cm.Data, name)) {
		return nil
	}
	base := cm.DeepCopy()
	if address == "" {
		delete(cm.Data, name)
	} else {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[name] = address
	}
	// Several guestbooks share the ConfigMap: a stale base must conflict, not overwrite another's entry.
	return r.Patch(ctx, cm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
}

func hasKey(data map[string]string, key string) bool {
	_, ok := data[key]
	return ok
}

func podLabels(gb *webappv1.Guestbook) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "guestbook", "app.kubernetes.io/instance": gb.Name}
}

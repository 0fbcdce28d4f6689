package ovni

import (
	"cmp"
	"slices"
	"sync"

	"github.com/hpcfs/hpcfs/decode/ovni"
)

// maxTasks bounds the tasks whose type trace.json can name (12 bytes
// each); the bursts of later-created tasks keep the model's generic name.
const maxTasks = 1 << 20

// taskModels are the models whose task bursts are named by their task
// type's label: the MCVs that create a type (jumbo: u32 type id, then the
// label up to its NUL) and a task (u32 task id, u32 type id), and the
// generic name of their bursts. Execution events start with the u32
// task id. The bursts named typed (OpenMP's worksharings, which the
// emulator labels with the task types' labels) start with the u32 type id.
var taskModels = [...]struct {
	typeCreate string
	taskCreate []string
	burst      string
	typed      string
}{
	{"VYc", []string{"VTc", "VTC"}, "nosv task", ""},
	{"6Yc", []string{"6Tc"}, "nanos6 task", ""},
	{"POc", []string{"PPc"}, "openmp task", "openmp worksharing"},
}

// A taskTable maps the tasks of the trace to the labels of their types,
// read in one pass over every stream on first use.
type taskTable struct {
	once   sync.Once
	labels map[typeKey]string
	tasks  []taskEntry // by (model, id); at most maxTasks
}

type typeKey struct {
	model byte
	id    uint32
}

type taskEntry struct {
	model    byte
	id, typ  uint32
	position int32 // order of creation, to keep the first of a reused id
}

func (tt *taskTable) load(t *trace) {
	tt.once.Do(func() {
		tt.labels = map[typeKey]string{}
		creates := map[[3]byte]bool{}
		types := map[[3]byte]bool{}
		for _, m := range taskModels {
			types[[3]byte{m.typeCreate[0], m.typeCreate[1], m.typeCreate[2]}] = true
			for _, c := range m.taskCreate {
				creates[[3]byte{c[0], c[1], c[2]}] = true
			}
		}
		var ev ovni.Event
		for _, th := range t.threads {
			s, _ := th.open()
			if s == nil {
				continue
			}
			r := s.NewReader(s.Start(), 64<<10)
			for r.Next(&ev) == nil {
				p := ev.Payload
				switch {
				case types[ev.MCV] && ev.Jumbo():
					typ, ok := ovni.PayloadU32(p, 4)
					k := typeKey{ev.MCV[0], typ}
					if _, seen := tt.labels[k]; ok && !seen {
						tt.labels[k] = string(ovni.PayloadStr(p, 8))
					}
				case creates[ev.MCV]:
					id, ok1 := ovni.PayloadU32(p, 0)
					typ, ok2 := ovni.PayloadU32(p, 4)
					if !ok1 || !ok2 {
						continue
					}
					if len(tt.tasks) == maxTasks {
						continue
					}
					tt.tasks = append(tt.tasks, taskEntry{ev.MCV[0], id, typ, int32(len(tt.tasks))})
				}
			}
		}
		slices.SortFunc(tt.tasks, func(a, b taskEntry) int {
			return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.id, b.id), cmp.Compare(a.position, b.position))
		})
	})
}

// typeLabel is the label of task type typ of model, if the trace creates
// it.
func (tt *taskTable) typeLabel(model byte, typ uint32) (string, bool) {
	l, ok := tt.labels[typeKey{model, typ}]
	return l, ok
}

// label is the label of the type of task id of model, if the trace
// creates both.
func (tt *taskTable) label(model byte, id uint32) (string, bool) {
	i, ok := slices.BinarySearchFunc(tt.tasks, taskEntry{model: model, id: id}, func(e, k taskEntry) int {
		return cmp.Or(cmp.Compare(e.model, k.model), cmp.Compare(e.id, k.id))
	})
	if !ok {
		return "", false
	}
	return tt.typeLabel(model, tt.tasks[i].typ)
}

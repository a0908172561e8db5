package dqn

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// ONNXFile is the ONNX export of the network in a model directory.
const ONNXFile = "model.onnx"

// ONNX constants (onnx.proto).
const (
	onnxIRVersion   = 8  // IR_VERSION_2021_7_30
	onnxOpset       = 13 // default domain ""
	onnxFloat       = 1  // TensorProto.DataType FLOAT
	onnxAttrInt     = 2  // AttributeProto.AttributeType INT
	onnxInputName   = "features"
	onnxOutputName  = "q_values"
	onnxBatchParam  = "batch"
	onnxGraphName   = "mirage_dqn"
	onnxOutputsDocs = "q_values[:, 0] is Q(wait), q_values[:, 1] is Q(submit); the greedy action is the argmax (ties wait)"
)

// EncodeONNX returns net as a serialised ONNX ModelProto (IR version 8,
// opset 13): input "features" float [batch, Sizes[0]] (the standardised
// feature vector), output "q_values" float [batch, 2] (index 0 wait, 1
// submit); layer l is a Gemm (transB=1) with FLOAT initializers
// "l{l}.weight" [out, in] and "l{l}.bias" [out], followed by Relu on hidden
// layers. meta becomes metadata_props (sorted by key) and meta["mirage"]
// the producer_version. The bytes depend only on net and meta.
func EncodeONNX(net *MLP, meta map[string]string) ([]byte, error) {
	if net == nil || len(net.Sizes) < 2 || len(net.W) != len(net.Sizes)-1 || len(net.B) != len(net.W) {
		return nil, fmt.Errorf("dqn: onnx: malformed network")
	}
	for l := range net.W {
		in, out := net.Sizes[l], net.Sizes[l+1]
		if len(net.W[l]) != in*out || len(net.B[l]) != out {
			return nil, fmt.Errorf("dqn: onnx: layer %d has %d weights and %d biases for sizes %v", l, len(net.W[l]), len(net.B[l]), net.Sizes)
		}
	}

	var g pbuf
	last := len(net.W) - 1
	prev := onnxInputName
	for l := range net.W {
		gemmOut := fmt.Sprintf("l%d.gemm", l)
		if l == last {
			gemmOut = onnxOutputName
		}
		// GraphProto.node = 1.
		g.message(1, func(n *pbuf) {
			n.str(1, prev)                         // NodeProto.input = 1
			n.str(1, fmt.Sprintf("l%d.weight", l)) //
			n.str(1, fmt.Sprintf("l%d.bias", l))   //
			n.str(2, gemmOut)                      // NodeProto.output = 2
			n.str(3, fmt.Sprintf("l%d_gemm", l))   // NodeProto.name = 3
			n.str(4, "Gemm")                       // NodeProto.op_type = 4
			n.message(5, func(a *pbuf) {           // NodeProto.attribute = 5
				a.str(1, "transB")        // AttributeProto.name = 1
				a.varint(3, 1)            // AttributeProto.i = 3
				a.varint(20, onnxAttrInt) // AttributeProto.type = 20
			})
		})
		prev = gemmOut
		if l < last {
			reluOut := fmt.Sprintf("l%d.relu", l)
			g.message(1, func(n *pbuf) {
				n.str(1, prev)
				n.str(2, reluOut)
				n.str(3, fmt.Sprintf("l%d_relu", l))
				n.str(4, "Relu")
			})
			prev = reluOut
		}
	}
	g.str(2, onnxGraphName) // GraphProto.name = 2
	for l := range net.W {
		in, out := net.Sizes[l], net.Sizes[l+1]
		g.message(5, func(t *pbuf) { onnxTensor(t, fmt.Sprintf("l%d.weight", l), []int{out, in}, net.W[l]) }) // GraphProto.initializer = 5
		g.message(5, func(t *pbuf) { onnxTensor(t, fmt.Sprintf("l%d.bias", l), []int{out}, net.B[l]) })
	}
	g.str(10, "mirage DQN: Q-values of the actions wait and submit from the standardised feature vector. "+onnxOutputsDocs) // GraphProto.doc_string = 10
	g.message(11, func(v *pbuf) {                                                                                           // GraphProto.input = 11
		onnxValueInfo(v, onnxInputName, net.Sizes[0], "standardised features ((x - mean) / std with the manifest's standardisation statistics)")
	})
	g.message(12, func(v *pbuf) { // GraphProto.output = 12
		onnxValueInfo(v, onnxOutputName, net.Sizes[len(net.Sizes)-1], onnxOutputsDocs)
	})

	var m pbuf
	m.varint(1, onnxIRVersion) // ModelProto.ir_version = 1
	m.str(2, "mirage")         // ModelProto.producer_name = 2
	if v, ok := meta["mirage"]; ok {
		m.str(3, v) // ModelProto.producer_version = 3
	}
	m.str(6, "mirage DQN provisioner. "+onnxOutputsDocs) // ModelProto.doc_string = 6
	m.bytes(7, g.b)                                      // ModelProto.graph = 7
	m.message(8, func(o *pbuf) {                         // ModelProto.opset_import = 8
		o.str(1, "")           // OperatorSetIdProto.domain = 1
		o.varint(2, onnxOpset) // OperatorSetIdProto.version = 2
	})
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		m.message(14, func(e *pbuf) { // ModelProto.metadata_props = 14
			e.str(1, k)       // StringStringEntryProto.key = 1
			e.str(2, meta[k]) // StringStringEntryProto.value = 2
		})
	}
	return m.b, nil
}

// onnxTensor writes a FLOAT TensorProto with little-endian float32 raw_data.
func onnxTensor(t *pbuf, name string, dims []int, data []float64) {
	for _, d := range dims {
		t.varint(1, uint64(d)) // TensorProto.dims = 1 (repeated int64, unpacked as in proto2)
	}
	t.varint(2, onnxFloat) // TensorProto.data_type = 2
	t.str(8, name)         // TensorProto.name = 8
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(v)))
	}
	t.bytes(9, raw) // TensorProto.raw_data = 9
}

// onnxValueInfo writes a ValueInfoProto of a float tensor [batch, n].
func onnxValueInfo(v *pbuf, name string, n int, doc string) {
	v.str(1, name)                // ValueInfoProto.name = 1
	v.message(2, func(tp *pbuf) { // ValueInfoProto.type = 2
		tp.message(1, func(tt *pbuf) { // TypeProto.tensor_type = 1
			tt.varint(1, onnxFloat)       // TypeProto.Tensor.elem_type = 1
			tt.message(2, func(s *pbuf) { // TypeProto.Tensor.shape = 2
				s.message(1, func(d *pbuf) { d.str(2, onnxBatchParam) }) // TensorShapeProto.dim = 1; Dimension.dim_param = 2
				s.message(1, func(d *pbuf) { d.varint(1, uint64(n)) })   // Dimension.dim_value = 1
			})
		})
	})
	v.str(3, doc) // ValueInfoProto.doc_string = 3
}

// pbuf is a minimal protobuf wire-format encoder: fields are appended in
// call order.
type pbuf struct{ b []byte }

const (
	wireVarint = 0
	wireBytes  = 2
)

func (p *pbuf) tag(field, wire int) { p.b = binary.AppendUvarint(p.b, uint64(field)<<3|uint64(wire)) }

// varint appends a varint field (int32/int64/enum; non-negative here).
func (p *pbuf) varint(field int, v uint64) {
	p.tag(field, wireVarint)
	p.b = binary.AppendUvarint(p.b, v)
}

// bytes appends a length-delimited field.
func (p *pbuf) bytes(field int, v []byte) {
	p.tag(field, wireBytes)
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
}

// str appends a string field.
func (p *pbuf) str(field int, s string) { p.bytes(field, []byte(s)) }

// message appends the nested message that fill writes.
func (p *pbuf) message(field int, fill func(*pbuf)) {
	var sub pbuf
	fill(&sub)
	p.bytes(field, sub.b)
}

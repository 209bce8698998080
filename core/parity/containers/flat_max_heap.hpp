#pragma once
// A binary max-heap of fixed-size records stored one after another in a flat array, for use
// inside a kernel (one heap per team or thread, in a slice of a View or in scratch memory). A
// record is `stride` values; the heap is ordered on the value at position `key` of each record.
// Records move as a whole, so the other values (a box, an axis) stay with their key.
//
//   T* slot = heap + size * stride;  // write the new record there, then
//   heap_push(heap, stride, key, size);
//   heap_pop(heap, stride, key, size, top);  // top receives the record with the largest key
//
// The sequence of comparisons and moves depends only on the keys, so a heap holds the same
// records in the same order on every backend. The caller keeps size below the capacity.
#include <Kokkos_Core.hpp>

namespace parity::containers {

template <class T>
KOKKOS_INLINE_FUNCTION void heap_swap_records(T* heap, int stride, int a, int b) {
  for (int m = 0; m < stride; ++m) {
    T const t = heap[a * stride + m];
    heap[a * stride + m] = heap[b * stride + m];
    heap[b * stride + m] = t;
  }
}

// The record written at slot `size` joins the heap; size grows by one.
template <class T>
KOKKOS_INLINE_FUNCTION void heap_push(T* heap, int stride, int key, int& size) {
  int i = size++;
  while (i > 0) {
    int const parent = (i - 1) / 2;
    if (!(heap[parent * stride + key] < heap[i * stride + key])) break;
    heap_swap_records(heap, stride, parent, i);
    i = parent;
  }
}

// Removes the record with the largest key (the first of equal ones the heap holds on top),
// copying it to `top` (stride values); size shrinks by one. The heap must not be empty.
template <class T>
KOKKOS_INLINE_FUNCTION void heap_pop(T* heap, int stride, int key, int& size, T* top) {
  for (int m = 0; m < stride; ++m) top[m] = heap[m];
  --size;
  if (size == 0) return;
  for (int m = 0; m < stride; ++m) heap[m] = heap[size * stride + m];
  int i = 0;
  while (true) {
    int const l = 2 * i + 1, r = 2 * i + 2;
    int largest = i;
    if (l < size && heap[largest * stride + key] < heap[l * stride + key]) largest = l;
    if (r < size && heap[largest * stride + key] < heap[r * stride + key]) largest = r;
    if (largest == i) break;
    heap_swap_records(heap, stride, i, largest);
    i = largest;
  }
}

}  // namespace parity::containers
